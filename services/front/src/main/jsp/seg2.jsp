<%-- Segment ②: a JSP renders (DEMAND_SEG2_*). --%>
<%@ page contentType="text/html;charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
         errorPage="/WEB-INF/error.jsp" import="org.soaptestbed.front.Demands" %>
<% Demands.seg2(); %>
<!DOCTYPE html>
<html><head><title>seg 2</title></head><body><pre>
segments: 1,2
jsp: seg2.jsp
</pre></body></html>
