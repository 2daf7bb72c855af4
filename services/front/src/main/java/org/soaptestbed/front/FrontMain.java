package org.soaptestbed.front;

import org.soaptestbed.common.Env;
import org.soaptestbed.common.Logs;
import org.soaptestbed.common.TomcatServer;

/** Starts the front: reads its knobs (FrontConfig), serves until SIGTERM. */
public final class FrontMain {

    private FrontMain() {
    }

    public static void main(String[] args) throws Exception {
        Logs.configure();
        FrontConfig config;
        try {
            config = FrontConfig.fromEnv(Env.system());
        } catch (IllegalArgumentException e) {      // Env.BadValue: a knob (CLONES_URL included) set wrong
            System.err.println("front: " + e.getMessage());
            System.exit(2);
            return;
        }
        TomcatServer server = FrontApp.create(config);
        server.start(config.describe());
        server.awaitStop();
    }
}
