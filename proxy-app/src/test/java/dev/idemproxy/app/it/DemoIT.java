package dev.idemproxy.app.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idemproxy.app.cli.IdemproxyCommand;
import dev.idemproxy.core.testing.LeakDetection;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** {@code idemproxy demo} end to end, in this JVM: the contrast table with a fixed seed. */
@ExtendWith(LeakDetection.class)
class DemoIT {

    @Test
    void throughIdemproxyNoIntentRunsTwiceWhileDirectRetriesMakeDuplicates() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = IdemproxyCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));

        int exit = cl.execute("demo", "--seed", "42");

        String table = out.toString();
        assertThat(exit).as(table + err).isEqualTo(IdemproxyCommand.OK);
        assertThat(table).contains("idemproxy demo (seed 42, 40 intents");
        int[] executions = row(table, "tickets created (executions)");
        int[] duplicates = row(table, "duplicate tickets");
        int[] never = row(table, "intents never executed");
        assertThat(duplicates[0]).as(table).isZero();
        assertThat(executions[0]).as("one ticket per executed intent\n" + table).isEqualTo(40 - never[0]);
        assertThat(duplicates[1]).as("the direct run makes duplicates with this seed\n" + table).isPositive();
        assertThat(executions[1]).as(table).isEqualTo(40 - never[1] + duplicates[1]);
        assertThat(table).doesNotContain("BUG");
    }

    /** The two numbers of a table row: via idemproxy, direct. */
    static int[] row(String table, String label) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(label) + "\\s+(\\d+)\\s+(\\d+)\\s*$").matcher(table);
        assertThat(m.find()).as("row '" + label + "' in\n" + table).isTrue();
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
    }
}
