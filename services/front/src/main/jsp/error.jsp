<%-- The error page of every segment page: the status, the tier that failed, the reason. --%>
<%@ page contentType="text/html;charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
         isErrorPage="true" import="org.soaptestbed.front.web.ErrorView, org.soaptestbed.front.web.Html" %>
<%
    ErrorView error = ErrorView.of(exception);
    response.setStatus(error.status());
%>
<!DOCTYPE html>
<html><head><title>error <%= error.status() %></title></head><body><pre>
error: <%= error.status() %>
failing-tier: <%= Html.escape(error.tier()) %>
reason: <%= Html.escape(error.reason()) %>
</pre></body></html>
