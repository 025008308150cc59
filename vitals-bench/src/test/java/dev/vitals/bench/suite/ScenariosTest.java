package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenariosTest {

    @Test
    void threadsAddedAreTheMultisetDifferenceOfTheNames() {
        List<String> before = List.of("main", "vitals-probe-1", "vitals-check-1");
        List<String> after = List.of("main", "vitals-check-1", "vitals-check-1", "vitals-probe-1", "vitals-schedule");

        assertThat(Scenarios.added(before, after)).containsExactly("vitals-check-1", "vitals-schedule");
        assertThat(Scenarios.added(after, before)).isEmpty();
    }

    @Test
    void theNativeMemorySummaryGivesCommittedKibPerCategoryAndTheTotal() {
        String summary = String.join("\n",
                "12345:",
                "",
                "Native Memory Tracking:",
                "",
                "Total: reserved=7842526KB, committed=484742KB",
                "       malloc: 10134KB #61099",
                "",
                "-                 Java Heap (reserved=6172672KB, committed=397312KB)",
                "                            (mmap: reserved=6172672KB, committed=397312KB) ",
                "-                     Class (reserved=1048784KB, committed=1360KB)",
                "                            (    reserved=65536KB, committed=7936KB)",
                "-    Native Memory Tracking (reserved=968KB, committed=968KB)",
                "-                 Metaspace (reserved=65574KB, committed=7974KB)");

        assertThat(ChildJvm.parseNativeMemory(summary)).containsExactly(
                java.util.Map.entry("Java Heap", 397312L), java.util.Map.entry("Class", 1360L),
                java.util.Map.entry("Native Memory Tracking", 968L), java.util.Map.entry("Metaspace", 7974L),
                java.util.Map.entry("Total", 484742L));
        assertThat(ChildJvm.parseNativeMemory("12345:\nNative memory tracking is not enabled\n")).isEmpty();
    }

    @Test
    void theThreadsVitalsAddsAreNamedWithWhatEachIsFor() {
        List<String> off = List.of("main", "http-nio-127.0.", "http-nio-127.0.");
        List<String> on = List.of("main", "http-nio-127.0.", "vitals-probe-1", "vitals-schedule", "vitals-listener",
                "vitals-listener", "G1 Refine#1");

        assertThat(Scenarios.threadsNote(on, off)).isEqualTo("added: G1 Refine#1 (not Vitals') vitals-listener x2 (listener delivery)"
                + " vitals-probe-1 (probe server loop) vitals-schedule (scheduler); only without vitals: http-nio-127.0.");
        assertThat(Scenarios.threadsNote(off, off)).isEqualTo("added: none");
    }
}
