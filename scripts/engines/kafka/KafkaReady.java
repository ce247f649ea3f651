// Readiness probe for the local Kafka broker, compiled with javac by scripts/engines.sh.
//
// Usage: java -cp <kafka jars>:<classes> KafkaReady <bootstrap> <timeoutMs>
//
// Exits 0 as soon as the broker answers a Metadata request (describeCluster + listTopics)
// and reports a controller; exits 1 with the last error after timeoutMs.

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;

import java.util.Properties;
import java.util.concurrent.TimeUnit;

public final class KafkaReady {
    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        long timeoutMs = args.length > 1 ? Long.parseLong(args[1]) : 30000L;
        long deadline = System.currentTimeMillis() + timeoutMs;

        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "zgw-engines-ready");

        Throwable last = null;
        try (Admin admin = Admin.create(p)) {
            while (System.currentTimeMillis() < deadline) {
                try {
                    DescribeClusterResult c = admin.describeCluster();
                    int nodes = c.nodes().get(3, TimeUnit.SECONDS).size();
                    boolean controller = c.controller().get(3, TimeUnit.SECONDS) != null;
                    admin.listTopics().names().get(3, TimeUnit.SECONDS);
                    if (nodes > 0 && controller) {
                        System.out.println("kafka ready: " + nodes + " broker(s) at " + bootstrap);
                        return;
                    }
                    last = new IllegalStateException("no brokers/controller in metadata yet");
                } catch (Exception e) {
                    last = e;
                }
                Thread.sleep(200);
            }
        }
        System.err.println("kafka not ready at " + bootstrap + " after " + timeoutMs + " ms: " + last);
        System.exit(1);
    }
}
