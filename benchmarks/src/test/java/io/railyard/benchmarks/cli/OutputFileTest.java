package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** An output file is written whole or not at all, and creates its directories only then. */
class OutputFileTest {
    @TempDir Path dir;

    private OutputFile check(Path path) {
        return OutputFile.check(
                Main.commandLine(dir.getFileSystem())
                        .getSubcommands()
                        .get("report")
                        .getCommandSpec(),
                "--json",
                path,
                null);
    }

    @Test
    void failedWrite_keepsTheEarlierFile_andLeavesNoTemporary() throws IOException {
        Path file = Files.writeString(dir.resolve("report.json"), "earlier");
        OutputFile output = check(file);

        assertThatThrownBy(
                        () ->
                                output.write(
                                        out -> {
                                            out.write("half".getBytes(StandardCharsets.UTF_8));
                                            throw new IOException("No space left on device");
                                        }))
                .hasMessage("No space left on device");

        assertThat(file).hasContent("earlier");
        try (Stream<Path> entries = Files.list(dir)) {
            assertThat(entries).containsExactly(file);
        }
    }

    @Test
    void check_createsNothing_andWriteCreatesTheMissingDirectories() throws IOException {
        Path file = dir.resolve("a/b/report.json");

        OutputFile output = check(file);
        assertThat(dir.resolve("a")).doesNotExist();
        output.write(out -> out.write('x'));

        assertThat(file).hasContent("x");
    }

    @Test
    void check_directory_isAUsageError() {
        assertThatThrownBy(() -> check(dir))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("it is a directory");
    }
}
