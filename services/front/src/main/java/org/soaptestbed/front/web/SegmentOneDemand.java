package org.soaptestbed.front.web;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import org.soaptestbed.common.Demand;

/**
 * Segment ①'s synthetic demand (DEMAND_SEG1_*): taken by every /seg/k request before its page
 * runs, since every path begins with segment ① (the HTTP request to the front and its answer).
 * Installed only when the demand is not zero, so the default request path has no extra filter.
 */
public final class SegmentOneDemand implements Filter {

    private final Demand demand;

    public SegmentOneDemand(Demand demand) {
        this.demand = demand;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        demand.apply();
        chain.doFilter(request, response);
    }
}
