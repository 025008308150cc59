package dev.vitals.demo;
import java.time.Duration;
public class ScratchMain {
    public static void main(String[] a) throws Exception {
        int dbPort = TestSupport.freePort();
        FaultProxy proxy = new FaultProxy(0, dbPort);
        String name = TestSupport.uniqueDbName();
        DemoApp app = TestSupport.startInProcess("--wiring", "naive", "--db-port", Integer.toString(dbPort),
                    "--db-name", name, "--db-url", "jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/mem:" + name);
        System.out.println(Http.get(app.port(), "/healthz", Duration.ofSeconds(3)));
        proxy.mode(FaultProxy.Mode.REJECT);
        for (int i = 0; i < 3; i++) System.out.println("reject " + Http.get(app.port(), "/healthz", Duration.ofSeconds(3)));
        proxy.mode(FaultProxy.Mode.FORWARD);
        for (int i = 0; i < 5; i++) { System.out.println("fwd " + Http.get(app.port(), "/healthz", Duration.ofSeconds(3))); Thread.sleep(500);}
        proxy.mode(FaultProxy.Mode.BLACKHOLE);
        for (int i = 0; i < 3; i++) System.out.println("bh " + Http.get(app.port(), "/healthz", Duration.ofSeconds(10)));
        proxy.mode(FaultProxy.Mode.FORWARD);
        for (int i = 0; i < 5; i++) { System.out.println("fwd " + Http.get(app.port(), "/healthz", Duration.ofSeconds(3))); Thread.sleep(500);}
        app.close();
        System.exit(0);
    }
}
