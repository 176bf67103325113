package dev.idemproxy.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathNormalizationTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            # already normal: the same string back
            /                        | /
            /api/tickets             | /api/tickets
            /api/tickets/            | /api/tickets/
            /.well-known/x           | /.well-known/x
            /a/.b/c.                 | /a/.b/c.
            /a/..b/b..               | /a/..b/b..
            /a/.../b                 | /a/.../b
            /a//b                    | /a//b
            # dot-segments (RFC 3986 5.2.4)
            /u/../admin              | /admin
            /u/./admin               | /u/admin
            /a/b/c/./../../g         | /a/g
            /mid/content=5/../6      | /mid/6
            /a/b/.                   | /a/b/
            /a/b/..                  | /a/
            /a/..                    | /
            /.                       | /
            /..                      | /
            /./                      | /
            /../                     | /
            # above the root: stays at the root
            /../x                    | /x
            /../../x/../../y         | /y
            /a/../../b               | /b
            # empty segments are kept, and a .. removes one of them as a segment
            /a//../b                 | /a/b
            //..//x                  | //x
            # unreserved escapes are decoded (RFC 3986 2.3), in either case
            /%7Euser                 | /~user
            /%7euser                 | /~user
            /%41%62%30-%5F%2E        | /Ab0-_.
            /%2D%2e%5f%7e            | /-._~
            /u/%2E%2E/admin          | /admin
            /u/%2e%2e/admin          | /admin
            /u/.%2e/admin            | /admin
            /u/%2e/admin             | /u/admin
            # reserved and other escapes are kept as they are
            /a%2Fb                   | /a%2Fb
            /a%2fb                   | /a%2fb
            /u/..%2Fadmin            | /u/..%2Fadmin
            /%25                     | /%25
            /%252E%252E              | /%252E%252E
            /%C3%A9t%C3%A9           | /%C3%A9t%C3%A9
            /a%20b                   | /a%20b
            /%3F                     | /%3F
            /%00                     | /%00
            """)
    void normalisesAPath(String path, String expected) {
        assertThat(PathNormalization.normalize(path)).isEqualTo(expected);
    }

    /** RFC 3986 §5.4: the examples that only touch the path, merged onto the base path {@code /b/c/d;p} (§5.2.3). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            # reference   | merged path            | result
            g             | /b/c/g                 | /b/c/g
            ./g           | /b/c/./g               | /b/c/g
            g/            | /b/c/g/                | /b/c/g/
            /g            | /g                     | /g
            ;x            | /b/c/;x                | /b/c/;x
            g;x           | /b/c/g;x               | /b/c/g;x
            .             | /b/c/.                 | /b/c/
            ./            | /b/c/./                | /b/c/
            ..            | /b/c/..                | /b/
            ../           | /b/c/../               | /b/
            ../g          | /b/c/../g              | /b/g
            ../..         | /b/c/../..             | /
            ../../        | /b/c/../../            | /
            ../../g       | /b/c/../../g           | /g
            ../../../g    | /b/c/../../../g        | /g
            ../../../../g | /b/c/../../../../g     | /g
            /./g          | /./g                   | /g
            /../g         | /../g                  | /g
            g.            | /b/c/g.                | /b/c/g.
            .g            | /b/c/.g                | /b/c/.g
            g..           | /b/c/g..               | /b/c/g..
            ..g           | /b/c/..g               | /b/c/..g
            ./../g        | /b/c/./../g            | /b/g
            ./g/.         | /b/c/./g/.             | /b/c/g/
            g/./h         | /b/c/g/./h             | /b/c/g/h
            g/../h        | /b/c/g/../h            | /b/c/h
            g;x=1/./y     | /b/c/g;x=1/./y         | /b/c/g;x=1/y
            g;x=1/../y    | /b/c/g;x=1/../y        | /b/c/y
            """)
    void followsTheRfc3986Examples(String reference, String merged, String expected) {
        assertThat(PathNormalization.normalize(merged)).as(reference).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            /%zz
            /%4
            /a%
            /%4g
            /%g4
            /%%41
            /ok/%2
            """)
    void aMalformedEscapeHasNoNormalForm(String path) {
        assertThat(PathNormalization.normalize(path)).isNull();
    }

    @Test
    void aNormalPathIsFoundInOneScanAndReturnedAsIs() {
        String target = "/api/tickets/.well-known?x=/../%zz";
        assertThat(PathNormalization.scan(target)).isEqualTo(target.indexOf('?'));
        assertThat(PathNormalization.scan("/api/tickets")).isEqualTo("/api/tickets".length());
        String path = "/api/tickets";
        assertThat(PathNormalization.normalize(path)).isSameAs(path);
    }

    @Test
    void theScanFlagsEscapesAndDotSegmentsBeforeTheQueryOnly() {
        assertThat(PathNormalization.scan("/a/%7E?q")).isEqualTo(~6);
        assertThat(PathNormalization.scan("/a/..?q")).isEqualTo(~5);
        assertThat(PathNormalization.scan("/a/.")).isEqualTo(~4);
        assertThat(PathNormalization.scan("/a/b?q=/../%zz")).isEqualTo(4);
        assertThat(PathNormalization.scan("/a%20b/%2F/%C3%A9")).isEqualTo(17);
        assertThat(PathNormalization.scan("/a%2")).isEqualTo(~4);
        assertThat(PathNormalization.scan("/a%2?")).isEqualTo(~4);
        assertThat(PathNormalization.normalize("/u/../admin?next=/../x", 11)).isEqualTo("/admin");
    }

    @Test
    void normalisingTwiceChangesNothingAndTheScanAgreesWithNormalize() {
        Random rnd = new Random(7);
        String[] pieces = {"/", "a", "b", ".", "..", "%2e", "%2E", "%7E", "%2F", "%25", "%41", "%C3%A9", "~", ";x", "-"};
        for (int round = 0; round < 20_000; round++) {
            StringBuilder b = new StringBuilder("/");
            for (int i = rnd.nextInt(10); i > 0; i--) {
                b.append(pieces[rnd.nextInt(pieces.length)]);
            }
            String path = b.toString();
            String once = PathNormalization.normalize(path);
            assertThat(once).as(path).startsWith("/");
            assertThat(PathNormalization.normalize(once)).as(path).isEqualTo(once);
            assertThat(PathNormalization.scan(once)).as(once).isEqualTo(once.length());
            if (PathNormalization.scan(path) >= 0) {
                assertThat(once).as(path).isSameAs(path);
            }
        }
    }
}
