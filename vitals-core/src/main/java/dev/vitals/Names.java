package dev.vitals;

import java.util.Objects;

/**
 * The one rule for names of checks, groups and monitors: not blank, and only ASCII letters,
 * digits, {@code .}, {@code _} and {@code -}. Names appear in probe paths ({@code /livez/<check>}),
 * in query parameters ({@code ?exclude=<check>}) and as metric tags, so they must need no escaping
 * anywhere. Stateless and thread-safe.
 */
public final class Names {
    private Names() {
    }

    /**
     * @param c a character
     * @return whether {@code c} may appear in a name: ASCII letter, digit, {@code .}, {@code _} or {@code -}
     */
    public static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-';
    }

    /**
     * @param name a candidate name, may be null
     * @return whether {@code name} is a valid name (not null, not blank, only name characters)
     */
    public static boolean isValid(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isNameChar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Validates a name, naming what it is in the message.
     *
     * @param what what the name names, for the message, e.g. {@code "check name"} or
     *     {@code "check 'db': group"}
     * @param name the name
     * @return {@code name}
     * @throws NullPointerException if {@code name} is null (the message is {@code what})
     * @throws IllegalArgumentException "&lt;what&gt; must not be blank" or "&lt;what&gt; '&lt;name&gt;'
     *     may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)"
     */
    public static String requireValid(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        if (!isValid(name)) {
            throw new IllegalArgumentException(what + " '" + name
                    + "' may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)");
        }
        return name;
    }
}
