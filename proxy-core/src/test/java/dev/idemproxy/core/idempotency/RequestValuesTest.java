package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestValuesTest {
    private final TestRequest request = TestRequest.post("/orders").withHeader("X-Biz-Id", "biz-7").withQuery("q", "v")
            .withJson("{\"orderId\":\"o-1\",\"n\":12.50}");

    @Test
    void textOfEachKind() {
        assertThat(RequestValues.text(RequestPart.parse("method"), request)).contains("POST");
        assertThat(RequestValues.text(RequestPart.parse("path"), request)).contains("/orders");
        assertThat(RequestValues.text(RequestPart.parse("header:x-biz-id"), request)).contains("biz-7");
        assertThat(RequestValues.text(RequestPart.parse("query:q"), request)).contains("v");
        assertThat(RequestValues.text(RequestPart.parse("body:/orderId"), request)).contains("o-1");
        assertThat(RequestValues.text(RequestPart.parse("body:/n"), request)).contains("12.5");
        assertThat(RequestValues.text(RequestPart.parse("body"), request)).contains("{\"orderId\":\"o-1\",\"n\":12.50}");
    }

    @Test
    void theFirstPartWithAValueWins() {
        List<RequestPart> bizId = List.of(RequestPart.parse("header:X-Biz-Id"), RequestPart.parse("body:/orderId"));
        assertThat(RequestValues.firstText(bizId, request)).contains("biz-7");
        assertThat(RequestValues.firstText(bizId, request.withHeader("X-Biz-Id", " "))).contains("o-1");
        assertThat(RequestValues.firstText(bizId, TestRequest.post("/"))).isEmpty();
    }

    @Test
    void aJsonBodyIsHashedCanonicallyAndAnyOtherAsSent() {
        assertThat(new String(RequestValues.body(request), StandardCharsets.UTF_8)).isEqualTo("{\"n\":12.5,\"orderId\":\"o-1\"}");
        TestRequest text = TestRequest.post("/").withHeader("Content-Type", "text/plain").withBody("{ \"a\" : 1 }");
        assertThat(new String(RequestValues.body(text), StandardCharsets.UTF_8)).isEqualTo("{ \"a\" : 1 }");
    }

    @Test
    void pointerPartsReadJsonWhateverTheContentType() {
        TestRequest noType = TestRequest.post("/").withBody("{\"orderId\":\"o-9\"}");
        assertThat(RequestValues.text(RequestPart.parse("body:/orderId"), noType)).contains("o-9");
        assertThat(RequestValues.value(RequestPart.parse("body:/missing"), noType)).isNull();
        assertThat(RequestValues.value(RequestPart.parse("header:Nope"), noType)).isNull();
    }

    /** CONTRACT §12: identifiers are read as UTF-8, though the codec gives header bytes as ISO-8859-1 characters. */
    @Test
    void aHeaderValueIsReadAsUtf8() {
        String sent = new String("order-ü-東京".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(RequestValues.headerText(sent)).isEqualTo("order-ü-東京");
        String ascii = "order-42";
        assertThat(RequestValues.headerText(ascii)).isSameAs(ascii);
        assertThat(RequestValues.headerText("a\u00ffb")).as("not UTF-8: U+FFFD").isEqualTo("a\uFFFDb");
        assertThat(RequestValues.headerText("東")).as("already text").isEqualTo("東");
        assertThat(RequestValues.headerText(null)).isNull();
    }
}
