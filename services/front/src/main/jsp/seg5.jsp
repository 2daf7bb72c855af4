<%-- Segment ⑤: the session bean's Invoker calls the client tier, which makes the SOAP call
     (DEMAND_INVOKER_*). Parameters: backend=axis|gsoap, op=<contract operation>, n=<items>. --%>
<%@ page contentType="text/html;charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
         errorPage="/WEB-INF/error.jsp"
         import="org.soaptestbed.front.Demands, org.soaptestbed.front.AccessBean, org.soaptestbed.front.ejb.CallReply, org.soaptestbed.front.web.Html" %>
<jsp:useBean id="access" class="org.soaptestbed.front.AccessBean" scope="page"/>
<jsp:setProperty name="access" property="*"/>
<%
    Demands.seg2();
    CallReply reply = access.invokeService();
%>
<!DOCTYPE html>
<html><head><title>seg 5</title></head><body><pre>
segments: 1,2,3,4,5
jsp: seg5.jsp
access-bean: <%= AccessBean.MARKER %>
bean-ref: <%= access.getBeanRef() %>
bean: <%= reply.getBeanName() %>
bean-instance: <%= reply.getBeanInstance() %>
call: <%= access.getCall() %>
clone: host=<%= Html.escape(reply.getCloneHost()) %> pid=<%= Html.escape(reply.getClonePid()) %>
soap-result: <%= Html.escape(reply.getSoapResult()) %>
</pre></body></html>
