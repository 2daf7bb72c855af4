<%-- Segment ③: the JSP uses the AccessBean (DEMAND_SEG3_*). --%>
<%@ page contentType="text/html;charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
         errorPage="/WEB-INF/error.jsp" import="org.soaptestbed.front.Demands" %>
<jsp:useBean id="access" class="org.soaptestbed.front.AccessBean" scope="page"/>
<%
    Demands.seg2();
    String marker = access.visit();
%>
<!DOCTYPE html>
<html><head><title>seg 3</title></head><body><pre>
segments: 1,2,3
jsp: seg3.jsp
access-bean: <%= marker %>
bean-ref: <%= access.getBeanRef() %>
</pre></body></html>
