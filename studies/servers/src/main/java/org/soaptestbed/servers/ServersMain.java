package org.soaptestbed.servers;

/**
 * The socket server threading models study (docs/method.md, "Socket server models"; docs/servers.md).
 *
 * <pre>
 * servers.jar server --model thread|poller|pooled [--pool K] [--work none|cpu:US|wait:US]
 *                    [--work-from start|reset] [--host 127.0.0.1] [--port 0] [--deadline-s 600]
 *                    [--sample-ms 5]
 * servers.jar client --port P [--connections N] [--messages M] [--length L] [--warmup K]
 *                    [--host 127.0.0.1] [--deadline-s 120]
 * </pre>
 */
public final class ServersMain {

    private ServersMain() {
    }

    public static void main(String[] args) throws Exception {
        String cmd = args.length > 0 ? args[0] : "";
        int rc;
        try {
            rc = switch (cmd) {
                case "server" -> ServerCommand.run(args);
                case "client" -> ClientCommand.run(args);
                default -> throw new Options.Bad("usage: servers.jar server|client [--option value ...] "
                        + "(see docs/servers.md)");
            };
        } catch (Options.Bad e) {
            System.err.println("servers: " + e.getMessage());
            rc = 2;
        }
        System.exit(rc);
    }
}
