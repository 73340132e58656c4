package io.railyard.benchmarks.inspect;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Turns Jackson's binding errors into {@link JobFileException}s for people: the JSON path of the
 * value at fault ({@code $.edges[3].pattern}) and what was expected there, without Java class
 * names. Jackson's parse locations ({@code [Source: …; line: 3, column: 17]}) become {@code line 3,
 * column 17}.
 */
final class JobFileJsonErrors {
    private static final Pattern LOCATION =
            Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]");

    /**
     * The JSON kinds in Jackson's mismatch messages ("from Array value", "coerce String value").
     */
    private static final Pattern FOUND =
            Pattern.compile(
                    "(?:from|coerce) (empty String|String|Array|Object|Boolean|Integer"
                            + "|Floating-point|Null)\\b");

    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private JobFileJsonErrors() {}

    /** The error for a binding failure, at the path Jackson recorded. */
    static JobFileException describe(JsonMappingException e) {
        return new JobFileException(pathOf(e.getPath()), problemOf(e));
    }

    /** A syntax error's text with its line and column. */
    static String malformed(Throwable e) {
        return "malformed JSON: " + readable(String.valueOf(e.getMessage()));
    }

    /** {@code $.edges[3].pattern}; keys that are not plain identifiers as {@code ['a b']}. */
    static String pathOf(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder("$");
        for (JsonMappingException.Reference reference : references) {
            String field = reference.getFieldName();
            if (field == null) {
                path.append('[').append(reference.getIndex()).append(']');
            } else if (PLAIN_NAME.matcher(field).matches()) {
                path.append('.').append(field);
            } else {
                path.append("['")
                        .append(field.replace("\\", "\\\\").replace("'", "\\'"))
                        .append("']");
            }
        }
        return path.toString();
    }

    private static String problemOf(JsonMappingException e) {
        if (e instanceof UnrecognizedPropertyException unknown) {
            return "unknown field '"
                    + unknown.getPropertyName()
                    + "'; allowed here: "
                    + sorted(unknown.getKnownPropertyIds());
        }
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException) {
            return String.valueOf(cause.getMessage()); // a repeated key or a count limit
        }
        if (cause != null) {
            return malformed(cause); // syntax or number-size errors inside a value
        }
        String original = String.valueOf(e.getOriginalMessage());
        if (original.startsWith("No content to map")) {
            return "the document is empty; expected an object with \"vertices\" and \"edges\"";
        }
        if (original.startsWith("Trailing token")) {
            return "unexpected content after the end of the root object" + locationOf(e);
        }
        if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            Class<?> target = mismatch.getTargetType();
            if (target.isEnum() && e instanceof InvalidFormatException format) {
                if (format.getValue() instanceof String value) {
                    return "unknown value '" + value + "'; allowed: " + constants(target);
                }
                return "expected " + kindOf(target) + ", found the number " + format.getValue();
            }
            return "expected " + kindOf(target) + found(original);
        }
        return readable(original);
    }

    private static String kindOf(Class<?> type) {
        if (type.isEnum()) {
            return "a string, one of " + constants(type);
        } else if (type == String.class) {
            return "a string";
        } else if (type == BigInteger.class) {
            return "an integer";
        } else if (type == BigDecimal.class) {
            return "a number";
        } else if (Collection.class.isAssignableFrom(type)) {
            return "an array";
        } else if (type.getEnclosingClass() == JobFileSchema.class) {
            return "an object";
        }
        return "a value of type " + type.getSimpleName();
    }

    private static String found(String jacksonMessage) {
        Matcher kind = FOUND.matcher(jacksonMessage);
        if (!kind.find()) {
            return "";
        }
        return switch (kind.group(1)) {
            case "empty String" -> ", found an empty string";
            case "Floating-point" -> ", found a decimal number";
            case "Integer", "Array", "Object" ->
                    ", found an " + kind.group(1).toLowerCase(Locale.ROOT);
            case "Null" -> ", found null";
            default -> ", found a " + kind.group(1).toLowerCase(Locale.ROOT);
        };
    }

    private static String constants(Class<?> enumType) {
        Object[] constants = enumType.getEnumConstants();
        return constants == null ? "[]" : Arrays.toString(constants);
    }

    private static String sorted(@Nullable Collection<Object> names) {
        List<String> sorted = new ArrayList<>();
        if (names != null) {
            for (Object name : names) {
                sorted.add(String.valueOf(name));
            }
        }
        sorted.sort(null);
        return sorted.toString();
    }

    private static String locationOf(JsonMappingException e) {
        Matcher location = LOCATION.matcher(String.valueOf(e.getMessage()));
        return location.find()
                ? " at line " + location.group(1) + ", column " + location.group(2)
                : "";
    }

    /** Jackson's message with locations made short and on one line. */
    private static String readable(String jacksonMessage) {
        return LOCATION.matcher(jacksonMessage)
                .replaceAll("line $1, column $2")
                .replaceAll("\\s+", " ")
                .trim();
    }
}
