<%-- Segment ④: the AccessBean calls the EJB-like session bean (DEMAND_SEG4_*). --%>
<%@ page contentType="text/html;charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
         errorPage="/WEB-INF/error.jsp"
         import="org.soaptestbed.front.Demands, org.soaptestbed.front.AccessBean, org.soaptestbed.front.ejb.CallReply" %>
<jsp:useBean id="access" class="org.soaptestbed.front.AccessBean" scope="page"/>
<%
    Demands.seg2();
    CallReply reply = access.callBean();
%>
<!DOCTYPE html>
<html><head><title>seg 4</title></head><body><pre>
segments: 1,2,3,4
jsp: seg4.jsp
access-bean: <%= AccessBean.MARKER %>
bean-ref: <%= access.getBeanRef() %>
bean: <%= reply.getBeanName() %>
bean-instance: <%= reply.getBeanInstance() %>
</pre></body></html>
