package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.input.InvalidInputException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The fleet file's routing, client and background fields, and Kubernetes Service and Ingress objects in it. */
class RoutingSpecReaderTest {
    private static final String BASE = String.join("\n",
            "replicas: 4",
            "duration: 1m",
            "replica: {workers: 40, startTime: 2s}",
            "probes: {server: app-pool, liveness: {periodSeconds: 2, timeoutSeconds: 3}}",
            "clients:",
            "  - {name: script, concurrency: 50, serviceTime: {min: 4s, max: 12s}, timeout: 60s, keys: 1}",
            "");

    private static FleetSpec read(String extra) {
        return FleetSpecReader.parse(BASE + extra, "f.yaml");
    }

    @Test
    void shortFormService() {
        FleetSpec s = read(String.join("\n",
                "nodes: 3",
                "service:",
                "  proxyMode: ipvs",
                "  ipvsScheduler: sh",
                "  sessionAffinity: ClientIP",
                "  sessionAffinityConfig: {clientIP: {timeoutSeconds: 600}}",
                "  internalTrafficPolicy: Local",
                ""));
        Routing r = s.service().routing();
        assertThat(r).isEqualTo(new Routing(Routing.Layer.KUBE_PROXY, Routing.Algorithm.IPVS_SH, Routing.Affinity.CLIENT_IP,
                Duration.ofSeconds(600), Routing.TrafficPolicy.LOCAL, 3));
        assertThat(s.clients().get(0).policy().keys()).isEqualTo(1);
        assertThat(read("").service().routing()).isEqualTo(Routing.DEFAULT);
    }

    @Test
    void theKubeProxyModeIsReportedAsConfiguredAndNftablesPicksAsIptablesDoes() {
        // kube-proxy's modes (pkg/proxy/{iptables,nftables,ipvs}/proxier.go): iptables and nftables both pick a Ready endpoint
        // uniformly at random per new connection (statistic --mode random; numgen random mod n), IPVS by its scheduler
        assertThat(read("").service().routing().describe()).isEqualTo("kube-proxy iptables");
        assertThat(read("service: {proxyMode: iptables}\n").service().routing().describe()).isEqualTo("kube-proxy iptables");
        FleetSpec nft = read("service: {proxyMode: nftables}\n");
        assertThat(nft.service().routing().describe()).isEqualTo("kube-proxy nftables");
        assertThat(nft.service().routing().algorithm().randomPick()).isTrue();
        assertThat(read("service: {proxyMode: ipvs}\n").service().routing().describe()).isEqualTo("kube-proxy ipvs rr");
        // the same seed, the same run: only the name differs
        dev.vitals.kubesim.model.KubeletOptions k = dev.vitals.kubesim.model.KubeletOptions.builder().build();
        FleetResult a = new ModelFleet(read(""), "a", k).run();
        FleetResult b = new ModelFleet(nft, "b", k).run();
        assertThat(b.totals()).isEqualTo(a.totals());
    }

    @Test
    void anIngressAnnotationTheModelDoesNotReadIsOneNoticeLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        String ingress = "ingress:\n  kind: Ingress\n  metadata:\n    name: front\n    annotations:\n"
                + "      nginx.ingress.kubernetes.io/load-balance: ewma\n"
                + "      nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"5\"\n";
        java.nio.file.Path f = java.nio.file.Files.writeString(dir.resolve("f.yaml"), BASE + ingress);
        assertThat(FleetSpecReader.read(f).service().routing().algorithm()).isEqualTo(Routing.Algorithm.EWMA); // read, not refused
        assertThat(FleetSpecReader.ingressNotices(f)).containsExactly(f + ":13: Ingress front: annotation "
                + "nginx.ingress.kubernetes.io/proxy-next-upstream-tries is not modelled (the simulator reads load-balance, affinity,"
                + " upstream-hash-by only): its effect is left out");
        // a manifest beside --manifest: its kind: Ingress documents
        java.nio.file.Path m = java.nio.file.Files.writeString(dir.resolve("m.yaml"), "apiVersion: v1\nkind: Service\n"
                + "metadata: {name: web}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n"
                + "  annotations:\n    nginx.ingress.kubernetes.io/affinity: cookie\n"
                + "    nginx.ingress.kubernetes.io/session-cookie-max-age: \"172800\"\n");
        assertThat(FleetSpecReader.ingressNotices(m)).singleElement().asString()
                .startsWith(m + ":11: Ingress web: annotation nginx.ingress.kubernetes.io/session-cookie-max-age is not modelled");
        assertThat(FleetSpecReader.ingressNotices(java.nio.file.Files.writeString(dir.resolve("plain.yaml"), BASE))).isEmpty();
    }

    @Test
    void aKubernetesServiceObjectGivesItsAffinityAndTrafficPolicy() {
        FleetSpec s = read(String.join("\n",
                "service:",
                "  apiVersion: v1",
                "  kind: Service",
                "  metadata: {name: exports, namespace: finance}",
                "  spec:",
                "    type: ClusterIP",
                "    selector: {app: exports}",
                "    ports: [{port: 80, targetPort: 8080}]",
                "    sessionAffinity: ClientIP",
                "    trafficDistribution: PreferSameNode",
                ""));
        Routing r = s.service().routing();
        assertThat(r.affinity()).isEqualTo(Routing.Affinity.CLIENT_IP);
        assertThat(r.affinityTimeout()).isEqualTo(Routing.DEFAULT_AFFINITY_TIMEOUT);
        assertThat(r.trafficPolicy()).isEqualTo(Routing.TrafficPolicy.PREFER_SAME_NODE);
        assertThat(s.service().propagationDelay()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aKubernetesIngressObjectGivesIngressNginxsBalancing() {
        FleetSpec s = read(String.join("\n",
                "ingress:",
                "  apiVersion: networking.k8s.io/v1",
                "  kind: Ingress",
                "  metadata:",
                "    name: exports",
                "    annotations:",
                "      nginx.ingress.kubernetes.io/affinity: cookie",
                "      nginx.ingress.kubernetes.io/load-balance: ewma",
                "  spec: {rules: [{host: exports.example}]}",
                ""));
        assertThat(s.service().routing()).isEqualTo(new Routing(Routing.Layer.INGRESS, Routing.Algorithm.EWMA, Routing.Affinity.COOKIE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1));
        FleetSpec hash = read("ingress: {kind: Ingress, metadata: {annotations: {nginx.ingress.kubernetes.io/upstream-hash-by: $remote_addr}}}\n");
        assertThat(hash.service().routing().affinity()).isEqualTo(Routing.Affinity.HASH);
        assertThat(hash.service().routing().algorithm()).isEqualTo(Routing.Algorithm.ROUND_ROBIN);
    }

    @Test
    void backgroundAndClientPolicy() {
        FleetSpec s = FleetSpecReader.parse(BASE.replace("keys: 1}", "keys: 1, http2: true, connections: 2, retryBackoff: 2}")
                + "background: {utilisation: 0.3, serviceTime: {min: 100ms, max: 300ms}}\n", "f.yaml");
        FleetSpec.Background b = s.background().orElseThrow();
        assertThat(b.ratePerReplica(40)).isCloseTo(60.0, org.assertj.core.data.Offset.offset(1e-9)); // 0.3 × 40 ÷ 0.2 s
        assertThat(s.clients().get(0).policy()).isEqualTo(new FleetSpec.ClientPolicy(1, true, 2, -1));
        assertThat(s.clients().get(0).connections()).isEqualTo(2);
    }

    static Stream<Arguments> badInputs() {
        return Stream.of(
            Arguments.of("service: {sessionAffinity: Sticky}\n", "f.yaml:7: service.sessionAffinity: must be None or ClientIP, was 'Sticky'"),
            Arguments.of("service: {proxyMode: userspace}\n", "f.yaml:7: service.proxyMode: must be iptables, nftables or ipvs, was 'userspace'"),
            Arguments.of("service: {proxyMode: ipvs, ipvsScheduler: wrr}\n",
                    "f.yaml:7: service.ipvsScheduler: must be rr, lc or sh (the schedulers modelled), was 'wrr'"),
            Arguments.of("service: {ipvsScheduler: sh}\n", "f.yaml:7: service.ipvsScheduler: is for proxyMode: ipvs"),
            Arguments.of("service:\n  sessionAffinity: ClientIP\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 0}}\n",
                    "f.yaml:9: service.sessionAffinityConfig.clientIP.timeoutSeconds: must be 1-86400, was 0"),
            Arguments.of("service: {sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}}\n",
                    "f.yaml:7: service.sessionAffinityConfig: is for sessionAffinity: ClientIP"),
            Arguments.of("service: {internalTrafficPolicy: local}\n",
                    "f.yaml:7: service.internalTrafficPolicy: must be Cluster or Local, was 'local'"),
            Arguments.of("service: {trafficDistribution: PreferClose}\n",
                    "f.yaml:7: service.trafficDistribution: must be PreferSameNode (PreferClose and PreferSameZone need zones, which the model does not place), was 'PreferClose'"),
            Arguments.of("service: {kind: Deployment}\n", "f.yaml:7: service.kind: must be Service here, was 'Deployment'"),
            Arguments.of("service: {apiVersion: v2, kind: Service}\n", "f.yaml:7: service.apiVersion: must be v1 for a Service, was 'v2'"),
            Arguments.of("ingress: {loadBalance: random}\n",
                    "f.yaml:7: ingress.loadBalance: must be round_robin, ewma or least_request, was 'random'"),
            Arguments.of("ingress: {affinity: cookie, upstreamHashBy: $remote_addr}\n",
                    "f.yaml:7: ingress: give one of affinity: cookie or upstream-hash-by, not both"),
            Arguments.of("service: {sessionAffinity: ClientIP}\ningress: {loadBalance: ewma}\n",
                    "f.yaml:8: ingress: an ingress balances to the pods directly, so the Service's sessionAffinity: ClientIP would never apply; drop one of them"),
            Arguments.of("ingress:\n  kind: Ingress\n  metadata:\n    annotations: {nginx.ingress.kubernetes.io/load-balance: least_conn}\n",
                    "f.yaml:10: ingress.metadata.annotations.nginx.ingress.kubernetes.io/load-balance: must be round_robin or ewma (ingress-nginx), was 'least_conn'"),
            Arguments.of("nodes: 0\n", "f.yaml:7: nodes: must be 1-1000000, was 0"),
            Arguments.of("background: {utilisation: 1.5, serviceTime: 100ms}\n", "f.yaml:7: background.utilisation: must be 0.001-0.99, was 1.5"),
            Arguments.of("background: {utilisation: 0.3, rate: 5, serviceTime: 100ms}\n",
                    "f.yaml:7: background: give exactly one of utilisation (0-0.99) or rate (per second per replica)"),
            Arguments.of("background: {rate: 5}\n", "f.yaml:7: background.serviceTime: missing"));
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badRoutingInputIsOneLineWithItsLine(String extra, String message) {
        RefusedFleetFiles.assertRefused(BASE + extra, "f.yaml").hasMessage(message);
    }

    static Stream<Arguments> badClients() {
        return Stream.of(
            Arguments.of("keys: 1}", "keys: -1}", "f.yaml:6: clients[0].keys: must be 0-10000000, was -1"),
            Arguments.of("keys: 1}", "keys: 1, http2: yes}", "f.yaml:6: clients[0].http2: must be true or false, was 'yes'"),
            Arguments.of("keys: 1}", "keys: 1, retryBackoff: 0.5}", "f.yaml:6: clients[0].retryBackoff: must be 1.0-10.0, was 0.5"),
            Arguments.of("keys: 1}", "keys: 1, node: 2}", "f.yaml:6: clients[0].node: must be 0-0, was 2"),
            Arguments.of("keys: 1}", "keys: 1, retryOn: [reset, 503]}", "f.yaml:6: clients[0].retryOn: '503' is not one of timeout, reset, refused, 5xx"),
            Arguments.of("keys: 1}", "keys: 1, retryOn: reset}", "f.yaml:6: clients[0].retryOn: must be a list of timeout, reset, refused, 5xx (e.g. [reset, refused])"),
            Arguments.of("concurrency: 50, serviceTime: {min: 4s, max: 12s}, timeout: 60s, keys: 1}",
                    "rate: 50, serviceTime: {min: 4s, max: 12s}, timeout: 60s, keys: 1, http2: true}",
                    "f.yaml:6: clients[0].http2: is for closed loop (concurrency): its requests share 'connections' connections"));
    }

    @ParameterizedTest
    @MethodSource("badClients")
    void badClientInputIsOneLineWithItsLine(String from, String to, String message) {
        RefusedFleetFiles.assertRefused(RefusedFleetFiles.edit(BASE, from, to), "f.yaml").hasMessage(message);
    }

    private static final String MANIFEST = String.join("\n",
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: exports}",
            "spec:",
            "  template:",
            "    spec:",
            "      containers: [{name: app, image: exports:1}]",
            "---",
            "apiVersion: v1",
            "kind: Service",
            "metadata: {name: exports}",
            "spec:",
            "  selector: {app: exports}",
            "  sessionAffinity: AFFINITY",
            "");

    @Test
    void theServiceBesideTheFleetFileInTheManifestGivesTheRouting(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path m = dir.resolve("deploy.yaml");
        java.nio.file.Files.writeString(m, MANIFEST.replace("AFFINITY", "ClientIP"));
        FleetSpec s = FleetSpecReader.withManifestRouting(read(""), m);
        assertThat(s.service().routing().affinity()).isEqualTo(Routing.Affinity.CLIENT_IP);
        // bad values: one line with the manifest's line
        java.nio.file.Files.writeString(m, MANIFEST.replace("AFFINITY", "Sticky"));
        assertThatThrownBy(() -> FleetSpecReader.withManifestRouting(read(""), m)).isInstanceOf(InvalidInputException.class)
                .hasMessage(m + ":14: service.spec.sessionAffinity: must be None or ClientIP, was 'Sticky'");
        java.nio.file.Files.writeString(m, MANIFEST.replace("AFFINITY", "None") + "---\nkind: Service\nmetadata: {name: other}\n");
        assertThatThrownBy(() -> FleetSpecReader.withManifestRouting(read(""), m))
                .hasMessage(m + ":16: a second Service; keep the one in front of the fleet's pods");
        java.nio.file.Files.writeString(m, MANIFEST.replace("AFFINITY", "ClientIP"));
        assertThatThrownBy(() -> FleetSpecReader.withManifestRouting(read("service: {proxyMode: ipvs}\n"), m))
                .hasMessage(m + ": has a Service or Ingress, and the fleet file gives routing too (service:/ingress:); keep one");
        // a manifest without a Service or Ingress leaves the fleet's routing as it is
        java.nio.file.Files.writeString(m, MANIFEST.substring(0, MANIFEST.indexOf("---")));
        assertThat(FleetSpecReader.withManifestRouting(read(""), m).service().routing()).isEqualTo(Routing.DEFAULT);
    }

    @Test
    void thePinnedExampleKillsItsPinnedPodAndTheSameLoadSpreadDoesNot() throws Exception {
        java.nio.file.Path example = java.nio.file.Path.of("..", "examples", "kubesim", "fleet-pinned.yaml");
        FleetSpec pinned = FleetSpecReader.read(example);
        assertThat(pinned.service().routing().affinity()).isEqualTo(Routing.Affinity.CLIENT_IP);
        FleetResult r = new ModelFleet(pinned, "pinned").run();
        assertThat(r.passed()).as(FleetReport.text(r)).isTrue();
        FleetSpec spread = FleetSpecReader.parse(java.nio.file.Files.readString(example)
                .replace("sessionAffinity: ClientIP", "sessionAffinity: None"), "spread.yaml");
        assertThat(new ModelFleet(spread, "spread").run().totals().kills()).isZero();
    }
}
