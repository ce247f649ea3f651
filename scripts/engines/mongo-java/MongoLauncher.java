// Tiny launcher for de.bwaldvogel:mongo-java-server (the library has no main class).
// Compiled with javac by scripts/engines.sh into the engines cache dir.
//
// Usage: java -cp <jars>:<classes> MongoLauncher --host 127.0.0.1 --port 27017
//             [--backend h2|memory] [--file <path.mv>] [--cache-mb 256] [--server-version MONGO_5_0]
//
// The h2 backend keeps the data in one MVStore file (it survives a restart);
// the memory backend loses everything on stop. SIGTERM closes the store cleanly.
// --cache-mb sizes the H2 page cache: H2's default (16 MB) makes every scan of a
// collection larger than that read and decode pages again (50k x 2 KB docs: ~0.8 s
// per unindexed query instead of ~30 ms), so keep it larger than the working set.

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.ServerVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.h2.mvstore.MVStore;

import java.util.concurrent.CountDownLatch;

public final class MongoLauncher {
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 27017;
        String backendName = "h2";
        String file = null;
        String serverVersion = "MONGO_5_0";
        int cacheMb = 256;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = (i + 1 < args.length) ? args[i + 1] : null;
            switch (a) {
                case "--host": host = v; i++; break;
                case "--port": port = Integer.parseInt(v); i++; break;
                case "--backend": backendName = v; i++; break;
                case "--file": file = v; i++; break;
                case "--server-version": serverVersion = v; i++; break;
                case "--cache-mb": cacheMb = Integer.parseInt(v); i++; break;
                default:
                    System.err.println("MongoLauncher: unknown argument " + a);
                    System.exit(2);
            }
        }

        final MongoBackend backend;
        if ("memory".equals(backendName)) {
            backend = new MemoryBackend();
        } else if ("h2".equals(backendName)) {
            if (file == null) {
                System.err.println("MongoLauncher: --file is required for the h2 backend");
                System.exit(2);
            }
            MVStore store = new MVStore.Builder().fileName(file).cacheSize(cacheMb).open();
            backend = new H2Backend(store);
        } else {
            System.err.println("MongoLauncher: unknown backend " + backendName + " (h2|memory)");
            System.exit(2);
            return;
        }
        backend.version(ServerVersion.valueOf(serverVersion));

        final MongoServer server = new MongoServer(backend);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("MongoLauncher: shutting down");
            try {
                server.shutdown(); // closes the backend (commits + closes the H2 store)
            } catch (Throwable t) {
                t.printStackTrace();
            }
            stopped.countDown();
            System.out.println("MongoLauncher: stopped");
        }, "mongo-shutdown"));

        server.bind(host, port);
        System.out.println("MongoLauncher: listening on " + host + ":" + port
                + " backend=" + backendName + (file != null ? " file=" + file + " cacheMb=" + cacheMb : "")
                + " version=" + serverVersion);
        stopped.await();
    }
}
