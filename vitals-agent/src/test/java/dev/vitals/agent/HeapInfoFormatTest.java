package dev.vitals.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code jcmd GC.heap_info} as the benchmark reads it, in the Serial GC's shapes of Java 17 and Java 25. */
class HeapInfoFormatTest {
    @Test
    void java17SerialGcGenerationsAreSummed() {
        String java17 = String.join("\n",
                "29003:",
                " def new generation   total 78656K, used 17046K [0x00000000f0000000, 0x00000000f5550000, 0x00000000f5550000)",
                "  eden space 69952K,  24% used [0x00000000f0000000, 0x00000000f10a5ad8, 0x00000000f4450000)",
                "  from space 8704K,   0% used [0x00000000f4450000, 0x00000000f4450000, 0x00000000f4cd0000)",
                "  to   space 8704K,   0% used [0x00000000f4cd0000, 0x00000000f4cd0000, 0x00000000f5550000)",
                " tenured generation   total 174784K, used 1200K [0x00000000f5550000, 0x0000000100000000, 0x0000000100000000)",
                "   the space 174784K,   0% used [0x00000000f5550000, 0x00000000f5550000, 0x00000000f5550200, 0x0000000100000000)",
                " Metaspace       used 8952K, committed 9152K, reserved 1114112K",
                "  class space    used 1062K, committed 1152K, reserved 1048576K");
        assertThat(AgentCostBenchmarkIT.heapUsedKb(java17)).isEqualTo(17046 + 1200);
    }

    @Test
    void java25SerialGcGenerationsAreSummed() {
        String java25 = String.join("\n",
                "28910:",
                "DefNew     total 78656K, used 28037K [0x00000000f0000000, 0x00000000f5550000, 0x00000000f5550000)",
                " eden space 69952K,  40% used [0x00000000f0000000, 0x00000000f1b617a0, 0x00000000f4450000)",
                " from space 8704K,   0% used [0x00000000f4450000, 0x00000000f4450000, 0x00000000f4cd0000)",
                " to   space 8704K,   0% used [0x00000000f4cd0000, 0x00000000f4cd0000, 0x00000000f5550000)",
                "Tenured    total 174784K, used 1166K [0x00000000f5550000, 0x0000000100000000, 0x0000000100000000)",
                " the  space 174784K,   0% used [0x00000000f5550000, 0x00000000f5673ab8, 0x0000000100000000)",
                " Metaspace       used 8952K, committed 9152K, reserved 1114112K",
                "  class space    used 1062K, committed 1152K, reserved 1048576K");
        assertThat(AgentCostBenchmarkIT.heapUsedKb(java25)).isEqualTo(28037 + 1166);
    }

    @Test
    void anUnknownFormatIsNotReadAsZero() {
        assertThat(AgentCostBenchmarkIT.heapUsedKb("12345:\nsomething else entirely")).isEqualTo(-1);
    }
}
