package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.runtime.ScriptedContainer.Phase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scripted container's phases as a state machine: the allowed moves, and the moves each signal makes. */
class ScriptedContainerTest {
    private final VirtualTime time = new VirtualTime();
    private final List<String> moves = new ArrayList<>();
    private final List<Integer> exits = new ArrayList<>();

    private ScriptedContainer container() {
        return new ScriptedContainer(time).listener((n, phase, code) -> moves.add(n + ":" + phase + (phase == Phase.EXITED ? "(" + code + ")" : "")
                + "@" + time.monotonicTime() / 1_000_000 + "ms"));
    }

    @Test
    void onlyTheTablesMovesAreAllowed() {
        assertThat(EnumSet.allOf(Phase.class).stream().filter(Phase.EXITED::canMoveTo)).containsExactly(Phase.STARTING, Phase.RUNNING);
        assertThat(EnumSet.allOf(Phase.class).stream().filter(Phase.STARTING::canMoveTo)).containsExactly(Phase.RUNNING, Phase.EXITED);
        assertThat(EnumSet.allOf(Phase.class).stream().filter(Phase.RUNNING::canMoveTo)).containsExactly(Phase.STOPPING, Phase.EXITED);
        assertThat(EnumSet.allOf(Phase.class).stream().filter(Phase.STOPPING::canMoveTo)).containsExactly(Phase.EXITED);
        // refused: no way back, no skipping the drain's start, no self-moves
        assertThat(Phase.RUNNING.canMoveTo(Phase.STARTING)).isFalse();
        assertThat(Phase.STOPPING.canMoveTo(Phase.RUNNING)).isFalse();
        assertThat(Phase.STARTING.canMoveTo(Phase.STOPPING)).isFalse();
        assertThat(Phase.EXITED.canMoveTo(Phase.STOPPING)).isFalse();
        assertThat(Phase.EXITED.canMoveTo(Phase.EXITED)).isFalse();
    }

    @Test
    void startsThenRunsThenDrainsOnTermThenExits() {
        ScriptedContainer c = container().startTime(Duration.ofSeconds(2)).exitAfterTerm(Duration.ofSeconds(3));
        ContainerRuntime.Instance i = c.start(1, exits::add);
        assertThat(c.phase()).isEqualTo(Phase.STARTING);
        assertThat(c.running(1)).isFalse();
        time.advance(Duration.ofSeconds(2));
        assertThat(c.running(1)).isTrue();

        i.terminate();
        i.terminate(); // a second SIGTERM while draining changes nothing
        time.advance(Duration.ofSeconds(5));

        assertThat(moves).containsExactly("1:STARTING@0ms", "1:RUNNING@2000ms", "1:STOPPING@2000ms", "1:EXITED(143)@5000ms");
        assertThat(exits).containsExactly(143);
        assertThat(c.phase()).isEqualTo(Phase.EXITED);
    }

    @Test
    void termWhileStartingOrWithExitOnTermEndsItInsideTheCall() {
        ScriptedContainer c = container().startTime(Duration.ofSeconds(2)).exitAfterTerm(Duration.ofSeconds(30));
        c.start(1, exits::add).terminate();
        assertThat(exits).containsExactly(143); // nothing answered yet: nothing to drain
        time.advance(Duration.ofSeconds(3)); // the start timer of the gone instance moves nothing
        assertThat(moves).containsExactly("1:STARTING@0ms", "1:EXITED(143)@0ms");

        ScriptedContainer quick = container().exitOnTerm();
        quick.start(1, exits::add).signal("TERM");
        assertThat(exits).containsExactly(143, 143);
    }

    @Test
    void aKillFromOutsideEndsTheCurrentInstanceOnlyAndAnOldHandleNoLongerActs() {
        ScriptedContainer c = container();
        ContainerRuntime.Instance first = c.start(1, exits::add);
        c.kill();
        ContainerRuntime.Instance second = c.start(2, exits::add);
        first.kill(); // the first instance is gone: its handle does nothing to the second
        assertThat(c.running(2)).isTrue();
        c.kill();
        c.kill(); // none runs: nothing
        assertThat(exits).containsExactly(137, 137);
        assertThat(c.instances()).isEqualTo(2);
        assertThat(second.describe()).isEqualTo("scripted instance 2");
    }

    @Test
    void ignoreTermLeavesOnlySigkill() {
        ScriptedContainer c = container().ignoreTerm();
        ContainerRuntime.Instance i = c.start(1, exits::add);
        i.terminate();
        time.advance(Duration.ofMinutes(1));
        assertThat(c.phase()).isEqualTo(Phase.RUNNING);
        i.signal("KILL");
        assertThat(exits).containsExactly(137);
    }
}
