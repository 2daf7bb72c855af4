package org.soaptestbed.front.web;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;

/**
 * Gives a static file whose name has no extension its Content-Type: Tomcat's DefaultServlet
 * derives the type from the extension only, and sends none when there is no mapping (it keeps
 * a type already set). Mapped to the exact path of such a file; the file is served unchanged.
 */
public final class FixedContentType implements Filter {

    private final String contentType;

    public FixedContentType(String contentType) {
        this.contentType = contentType;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        response.setContentType(contentType);
        chain.doFilter(request, response);
    }
}
