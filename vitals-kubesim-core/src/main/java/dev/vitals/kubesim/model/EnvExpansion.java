package dev.vitals.kubesim.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code $(VAR)} expansion of container commands, args and exec probe commands, as the
 * kubelet does it ({@code third_party/forked/golang/expansion/expand.go}, used by
 * {@code kubecontainer.ExpandContainerCommandOnlyStatic} for exec probes, R68):
 * <ul>
 *   <li>{@code $(NAME)} becomes the value of {@code NAME} when it is defined; an undefined
 *       reference is left as written, {@code $(NAME)};</li>
 *   <li>{@code $$} becomes {@code $} (the escape), so {@code $$(NAME)} is the literal
 *       {@code $(NAME)};</li>
 *   <li>any other {@code $} is kept, and an unclosed {@code $(} is kept as written.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class EnvExpansion {
    private EnvExpansion() {
    }

    /**
     * @param input the text
     * @param env the container's environment (static values only, R68)
     * @return the expanded text
     */
    public static String expand(String input, Map<String, String> env) {
        StringBuilder out = new StringBuilder(input.length());
        int checkpoint = 0;
        for (int cursor = 0; cursor < input.length(); cursor++) {
            if (input.charAt(cursor) == '$' && cursor + 1 < input.length()) {
                out.append(input, checkpoint, cursor);
                char next = input.charAt(cursor + 1);
                if (next == '$') { // escaped operator
                    out.append('$');
                    cursor++;
                } else if (next == '(') {
                    int close = input.indexOf(')', cursor + 2);
                    if (close < 0) { // unclosed: keep "$(" and the rest as written
                        out.append("$(");
                        cursor++;
                    } else {
                        String name = input.substring(cursor + 2, close);
                        String value = env.get(name);
                        out.append(value != null ? value : "$(" + name + ")");
                        cursor = close;
                    }
                } else { // not an operator: keep both characters
                    out.append('$').append(next);
                    cursor++;
                }
                checkpoint = cursor + 1;
            }
        }
        out.append(input, checkpoint, input.length());
        return out.toString();
    }

    /**
     * @param command each element is expanded on its own
     * @param env the container's environment
     * @return the expanded command
     */
    public static List<String> expand(List<String> command, Map<String, String> env) {
        List<String> out = new ArrayList<>(command.size());
        for (String s : command) {
            out.add(expand(s, env));
        }
        return out;
    }
}
