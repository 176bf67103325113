package dev.idemproxy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code --help} shows: the descriptions as written, whole, in every verb's list of commands. */
class HelpTextTest {

    /**
     * A verb's list of commands shows the first string of each subcommand's description only, so a
     * description given as several strings is cut where the first ends (issue #43: `dlq --help`
     * showed "replay  Re-send the entry's request through the proxy with the same idempotency key;").
     */
    @Test
    void everyVerbsDescriptionIsOneStringSoTheListsShowItWhole() {
        List<String> split = new ArrayList<>();
        walk(IdemproxyCommand.commandLine(), cl -> {
            boolean ours = !(cl.getCommand() instanceof CommandLine.HelpCommand);  // picocli's own: two whole sentences
            if (ours && cl.getCommandSpec().usageMessage().description().length > 1) {
                split.add(cl.getCommandSpec().qualifiedName());
            }
        });
        assertThat(split).isEmpty();
    }

    @Test
    void dlqHelpListsReplayWithWhatItDoesToTheEntry() {
        StringWriter out = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out));

        assertThat(cl.execute("dlq", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " "))
                .contains("replay Re-send the entry's request through the proxy with the same idempotency key: a 2xx answer"
                        + " removes the entry. A call whose key the proxy generated gets a new key. delete");
    }

    private static void walk(CommandLine cl, java.util.function.Consumer<CommandLine> visit) {
        visit.accept(cl);
        cl.getSubcommands().values().forEach(sub -> walk(sub, visit));
    }
}
