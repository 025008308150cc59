package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * L6 (case C19): an exec probe that runs a shell, {@code timeout}, a sub-shell, a pipeline or
 * a background job. When the probe times out the kubelet marks it failed but does not kill
 * what it started; the children outlive it, pile up, and under a PID 1 that does not reap
 * (a JVM) become zombies until the node runs out of PIDs. A single binary run directly does
 * not fire.
 */
final class ExecShellRule extends BaseRule {
    private static final Set<String> SHELLS = Set.of("sh", "bash", "ash", "dash", "zsh", "ksh", "mksh", "busybox");
    /** Shell builtins: a shell running only these starts no child process. */
    private static final Set<String> BUILTINS = Set.of("test", "[", "[[", "echo", "printf", "true", "false", "exit", ":",
            "read", "cd", "export", "return", "set", "!", "]", "]]", "unset", "let", "shift", "eval");
    private static final Pattern BACKGROUND = Pattern.compile("(^|[^&>|])&($|[^&>])");

    ExecShellRule() {
        super("L6", "exec-shell", Severity.WARNING, "exec probe runs a shell, timeout, a sub-shell, a pipeline or a background job (processes outlive a timed-out probe)",
                "an exec probe's command starts child processes: a shell running a command that is not a builtin, timeout, a sub-shell, a pipeline or a background job", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (ProbeType type : ProbeType.values()) {
            java.util.Optional<ProbeSpec> p = t.probe(type);
            java.util.Optional<ProbeHandler.Exec> exec = p.flatMap(s -> s.handler().asExec());
            if (exec.isEmpty()) {
                continue;
            }
            List<String> cmd = exec.get().command();
            List<String> why = reasons(cmd);
            if (why.isEmpty()) {
                continue;
            }
            boolean jvm = t.runtime().jvm();
            out.accept(t.finding(this, type.fieldName() + ".exec.command", type.label() + " probe runs "
                    + String.join(", ", why) + " (" + abbreviate(String.join(" ", cmd)) + "): when it outlives timeoutSeconds "
                    + p.get().timeoutSeconds() + "s the probe fails but the processes it started keep running; every period adds"
                    + " more, and under a PID 1 that does not reap them" + (jvm ? " (a JVM does not)" : "") + " they stay as zombies",
                    "R68, C19", (jvm ? "use an httpGet or grpc probe served by the application (Vitals /livez on its own port);"
                            : "use an httpGet, tcpSocket or grpc probe the server answers itself;")
                            + " if it must be exec, run one binary directly (no shell) that bounds its own time below"
                            + " timeoutSeconds, with an init that reaps as PID 1 (tini, dumb-init)"));
        }
    }

    static List<String> reasons(List<String> cmd) {
        List<String> why = new ArrayList<>();
        if (cmd.isEmpty()) {
            return why;
        }
        String first = base(cmd.get(0));
        String text = String.join(" ", cmd);
        if (SHELLS.contains(first)) {
            if (cmd.size() >= 3 && cmd.get(1).equals("-c") && onlyBuiltins(cmd.get(2))) {
                return why; // the shell itself is the probe's one process: nothing outlives it
            }
            why.add("a shell (" + first + ")");
        }
        for (String word : text.split("[\\s;&|()`]+")) {
            if (base(word).equals("timeout")) {
                why.add("timeout");
                break;
            }
        }
        if (text.contains("$(") || text.contains("`")) {
            why.add("a sub-shell");
        } else if (Pattern.compile("(^|[\\s;&|])\\(").matcher(text).find()) {
            why.add("a sub-shell");
        }
        if (text.replace("||", "").contains("|")) {
            why.add("a pipeline");
        }
        if (BACKGROUND.matcher(text.replace("&&", "")).find()) {
            why.add("a background job");
        }
        return why;
    }

    /** @return true when every command of a simple script (;, &&, ||, newlines) is a shell builtin */
    static boolean onlyBuiltins(String script) {
        if (script.contains("$(") || script.contains("`") || script.contains("|") && !script.replace("||", "").isEmpty()
                && script.replace("||", "").contains("|")) {
            return false;
        }
        for (String part : script.split("&&|\\|\\||;|\\n")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            if (p.startsWith("(") || BACKGROUND.matcher(p).find()) {
                return false;
            }
            String word = p.split("\\s+")[0];
            if (!BUILTINS.contains(word)) {
                return false;
            }
        }
        return true;
    }

    private static String base(String s) {
        int slash = s.lastIndexOf('/');
        return slash < 0 ? s : s.substring(slash + 1);
    }

    private static String abbreviate(String s) {
        String one = s.replaceAll("\\s+", " ").strip();
        return one.length() <= 80 ? one : one.substring(0, 77) + "...";
    }
}
