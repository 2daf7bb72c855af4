"""WSDLs a user might bring that the testbed must refuse or read with care (tests/ownservice)."""

NS = ('xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" '
      'xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" xmlns:xs="http://www.w3.org/2001/XMLSchema" '
      'xmlns:tns="urn:t" targetNamespace="urn:t"')


def wsdl(types: str = "", binding: str = "soap", use: str = "literal", style: str = "document",
         doctype: str = "") -> str:
    """A one-operation WSDL ("echo" taking tns:echo): its binding SOAP 1.1 or HTTP, its use and style."""
    if binding == "soap":
        bind = (f'<soap:binding style="{style}" transport="http://schemas.xmlsoap.org/soap/http"/>'
                f'<wsdl:operation name="echo"><soap:operation soapAction="echo"/>'
                f'<wsdl:input><soap:body use="{use}"/></wsdl:input>'
                f'<wsdl:output><soap:body use="{use}"/></wsdl:output></wsdl:operation>')
        address = '<soap:address location="http://127.0.0.1:9/echo"/>'
    else:
        bind = ('<http:binding verb="GET"/><wsdl:operation name="echo"><http:operation location="/echo"/>'
                '<wsdl:input><http:urlEncoded/></wsdl:input><wsdl:output/></wsdl:operation>')
        address = '<http:address location="http://127.0.0.1:9/"/>'
    types = types or ('<xs:schema targetNamespace="urn:t" elementFormDefault="qualified">'
                      '<xs:element name="echo"><xs:complexType><xs:sequence>'
                      '<xs:element name="text" type="xs:string"/></xs:sequence></xs:complexType></xs:element>'
                      '<xs:element name="echoResponse" type="xs:string"/></xs:schema>')
    return (f'<?xml version="1.0"?>{doctype}<wsdl:definitions {NS}><wsdl:types>{types}</wsdl:types>'
            '<wsdl:message name="in"><wsdl:part name="p" element="tns:echo"/></wsdl:message>'
            '<wsdl:message name="out"><wsdl:part name="p" element="tns:echoResponse"/></wsdl:message>'
            '<wsdl:portType name="P"><wsdl:operation name="echo"><wsdl:input message="tns:in"/>'
            '<wsdl:output message="tns:out"/></wsdl:operation></wsdl:portType>'
            f'<wsdl:binding name="B" type="tns:P">{bind}</wsdl:binding>'
            f'<wsdl:service name="S"><wsdl:port name="Q" binding="tns:B">{address}</wsdl:port></wsdl:service>'
            '</wsdl:definitions>')


def importing(location: str) -> str:
    """A WSDL whose schema imports another from location."""
    return wsdl(types=f'<xs:schema targetNamespace="urn:t" elementFormDefault="qualified">'
                      f'<xs:import namespace="urn:other" schemaLocation="{location}"/>'
                      '<xs:element name="echo"><xs:complexType><xs:sequence>'
                      '<xs:element name="text" type="xs:string"/></xs:sequence></xs:complexType></xs:element>'
                      '<xs:element name="echoResponse" type="xs:string"/></xs:schema>')


def schema_importing(ns: str, other_ns: str, location: str) -> str:
    return (f'<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="{ns}">'
            f'<xs:import namespace="{other_ns}" schemaLocation="{location}"/>'
            '<xs:element name="thing" type="xs:string"/></xs:schema>')


ENTITY = ('<!DOCTYPE wsdl:definitions [<!ENTITY secret SYSTEM "file:///etc/passwd">]>')
