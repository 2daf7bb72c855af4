package org.soaptestbed.front.container;

import org.soaptestbed.common.Demand;

/**
 * Takes a synthetic demand (docs/tiers.md) on the pooled instance's time, just before the
 * business method runs: the front's SEG4 point.
 */
public final class DemandInterceptor implements Interceptor {

    private final Demand demand;

    public DemandInterceptor(Demand demand) {
        this.demand = demand;
    }

    @Override
    public Object invoke(Invocation call) throws Exception {
        demand.apply();
        return call.proceed();
    }
}
