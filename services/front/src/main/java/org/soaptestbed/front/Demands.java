package org.soaptestbed.front;

import org.soaptestbed.common.Demand;

/**
 * The demand points taken by code the container instantiates by itself (the JSPs and the
 * AccessBean of {@code jsp:useBean}), so they cannot be handed their configuration: set once
 * at start-up by {@link FrontApp}, zero until then.
 */
public final class Demands {

    private static final Demand ZERO = new Demand("NONE", 0, 0, false);
    private static volatile Demand seg2 = ZERO;
    private static volatile Demand seg3 = ZERO;

    private Demands() {
    }

    static void install(Demand segment2, Demand segment3) {
        seg2 = segment2;
        seg3 = segment3;
    }

    /** Segment ②: the JSP's own demand (DEMAND_SEG2_*). */
    public static void seg2() {
        seg2.apply();
    }

    /** Segment ③: the AccessBean's demand (DEMAND_SEG3_*). */
    public static void seg3() {
        seg3.apply();
    }
}
