// Tiny launcher for de.bwaldvogel:mongo-java-server (the library has no main class).
// Compiled with javac by scripts/engines.sh into the engines cache dir.
//
// Usage: java -cp <jars>:<classes> MongoLauncher --host 127.0.0.1 --port 27017
//             [--backend durable|memory] [--dir <folder>] [--fsync on|off] [--server-version MONGO_5_0]
//
// The durable backend (default) keeps the documents in memory and every change in a journal in --dir that is
// written (and with --fsync on, forced to disk) before the command's reply: an acknowledged write survives kill -9
// and, with fsync, a power cut. See DurableStore.java for the files. The memory backend loses everything on stop.
// The port is opened only after the store is read back, so "answers on the port" means "has all its data".

package zgw.store;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.ServerVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

import java.nio.file.Path;

import java.util.concurrent.CountDownLatch;

public final class MongoLauncher {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 27017;
        String backendName = "durable";
        String dir = null;
        String serverVersion = "MONGO_5_0";
        boolean fsync = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = (i + 1 < args.length) ? args[i + 1] : null;
            switch (a) {
                case "--host": host = v; i++; break;
                case "--port": port = Integer.parseInt(v); i++; break;
                case "--backend": backendName = v; i++; break;
                case "--dir": dir = v; i++; break;
                case "--server-version": serverVersion = v; i++; break;
                case "--fsync": fsync = !"off".equals(v); i++; break;
                default:
                    System.err.println("MongoLauncher: unknown argument " + a);
                    System.exit(2);
            }
        }

        final MongoBackend backend;
        if ("memory".equals(backendName)) {
            backend = new MemoryBackend();
        } else if ("durable".equals(backendName)) {
            if (dir == null) {
                System.err.println("MongoLauncher: --dir is required for the durable backend");
                System.exit(2);
            }
            backend = new DurableBackend(DurableStore.open(Path.of(dir), fsync));
        } else {
            System.err.println("MongoLauncher: unknown backend " + backendName + " (durable|memory)");
            System.exit(2);
            return;
        }
        backend.version(ServerVersion.valueOf(serverVersion));

        HeapWatch.start();
        final WireServer server = new WireServer(backend);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("MongoLauncher: shutting down");
            try {
                server.shutdown(); // closes the backend (writes what is left of the journal)
            } catch (Throwable t) {
                t.printStackTrace();
            }
            stopped.countDown();
            System.out.println("MongoLauncher: stopped");
        }, "mongo-shutdown"));

        server.bind(host, port);
        System.out.println("MongoLauncher: listening on " + host + ":" + port
                + " backend=" + backendName + (dir != null ? " dir=" + dir + " fsync=" + (fsync ? "on" : "off") : "")
                + " version=" + serverVersion);
        stopped.await();
    }
}
