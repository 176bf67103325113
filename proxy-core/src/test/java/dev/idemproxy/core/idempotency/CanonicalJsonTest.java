package dev.idemproxy.core.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalJsonTest {
    private static String canon(String json) {
        return CanonicalJson.canonicalize(json.getBytes(StandardCharsets.UTF_8))
                .map(b -> new String(b, StandardCharsets.UTF_8)).orElse(null);
    }

    private static Optional<String> at(String json, String pointer) {
        return CanonicalJson.at(json.getBytes(StandardCharsets.UTF_8), pointer).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    private static Optional<String> textAt(String json, String pointer) {
        return CanonicalJson.textAt(json.getBytes(StandardCharsets.UTF_8), pointer);
    }

    @Test
    void keysAreSortedRecursivelyAndWhitespaceDropped() {
        assertThat(canon(" { \"b\" : 1 ,\n \"a\" : { \"z\": [ 3, {\"y\":true, \"x\":null} ], \"c\": \"s\" } } "))
                .isEqualTo("{\"a\":{\"c\":\"s\",\"z\":[3,{\"x\":null,\"y\":true}]},\"b\":1}");
    }

    @Test
    void arrayOrderIsKept() {
        assertThat(canon("[3,1,2]")).isEqualTo("[3,1,2]");
    }

    @Test
    void keyOrderAndWhitespaceDoNotChangeTheCanonicalForm() {
        assertThat(canon("{\"userId\":7,\"faultType\":\"disk\"}")).isEqualTo(canon("{ \"faultType\" : \"disk\",\n\t\"userId\" : 7 }"));
    }

    @Test
    void stringsAreReEscapedOneWay() {
        assertThat(canon("\"\\u0041\\/\\u00e9\\n\\u0001\\\"\\\\\"")).isEqualTo("\"A/é\\n\\u0001\\\"\\\\\"");
        assertThat(canon("\"é\"")).isEqualTo(canon("\"\\u00E9\""));
    }

    @ParameterizedTest
    @CsvSource({"1,1", "1.0,1", "1e0,1", "10E-1,1", "-0,0", "-0.0,0", "100,100", "1e2,100", "1.50,1.5",
            "0.001,0.001", "1E-3,0.001", "-12.340e1,-123.4", "123456789012345678901234567890,123456789012345678901234567890"})
    void numbersAreNormalisedByValue(String in, String out) {
        assertThat(canon(in)).isEqualTo(out);
    }

    @Test
    void hugeExponentsStayScientific() {
        assertThat(canon("1e400")).isEqualTo("1E+400");
        assertThat(canon("1e-400")).isEqualTo("1E-400");
        assertThat(CanonicalJson.number(new BigDecimal("1e999999999"))).isEqualTo("1E+999999999");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"a\":1}x", "{\"a\":1} {\"b\":2}", "{'a':1}", "{\"a\":1,\"a\":2}", "NaN", "[1,]"})
    void invalidJsonIsNotCanonicalised(String json) {
        assertThat(canon(json)).isNull();
    }

    @Test
    void scalarsAreDocumentsToo() {
        assertThat(canon(" true ")).isEqualTo("true");
        assertThat(canon("\"x\"")).isEqualTo("\"x\"");
    }

    @Test
    void pointersFindNestedValues() {
        String doc = "{\"order\":{\"id\":\"o-1\",\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\",\"n\":2.0}]},\"z\":1}";
        assertThat(at(doc, "/order/id")).contains("\"o-1\"");
        assertThat(at(doc, "/order/items/1")).contains("{\"n\":2,\"sku\":\"b\"}");
        assertThat(at(doc, "/order/items/1/sku")).contains("\"b\"");
        assertThat(at(doc, "/z")).contains("1");
    }

    @Test
    void pointerEscapesAreHonoured() {
        String doc = "{\"a/b\":1,\"m~n\":2,\"\":3}";
        assertThat(at(doc, "/a~1b")).contains("1");
        assertThat(at(doc, "/m~0n")).contains("2");
        assertThat(at(doc, "/")).contains("3");
    }

    @Test
    void absentOrImpossiblePathsAreEmpty() {
        String doc = "{\"a\":[1,2],\"s\":\"x\"}";
        assertThat(at(doc, "/b")).isEmpty();
        assertThat(at(doc, "/a/2")).isEmpty();
        assertThat(at(doc, "/a/x")).isEmpty();
        assertThat(at(doc, "/a/-")).isEmpty();
        assertThat(at(doc, "/s/0")).isEmpty();
        assertThat(at(doc, "no-slash")).isEmpty();
        assertThat(at("not json", "/a")).isEmpty();
    }

    @Test
    void numericNamesAreObjectMembersInObjects() {
        assertThat(at("{\"0\":\"zero\"}", "/0")).contains("\"zero\"");
    }

    @Test
    void textAtGivesStringsUnquotedAndOthersCanonical() {
        String doc = "{\"id\":\"o-\\\"1\\\"\",\"n\":4.50,\"t\":true,\"o\":{\"b\":1,\"a\":2},\"nil\":null,\"blank\":\"\"}";
        assertThat(textAt(doc, "/id")).contains("o-\"1\"");
        assertThat(textAt(doc, "/n")).contains("4.5");
        assertThat(textAt(doc, "/t")).contains("true");
        assertThat(textAt(doc, "/o")).contains("{\"a\":2,\"b\":1}");
        assertThat(textAt(doc, "/nil")).isEmpty();
        assertThat(textAt(doc, "/blank")).contains("");
    }

    @ParameterizedTest
    @CsvSource({"application/json,true", "application/json; charset=utf-8,true", "APPLICATION/JSON,true",
            "application/problem+json,true", "text/json,true", "text/plain,false", "application/jsonx,false",
            "json,false", "multipart/form-data,false"})
    void jsonMediaTypesAreRecognised(String type, boolean json) {
        assertThat(CanonicalJson.isJsonMediaType(type)).isEqualTo(json);
    }

    @Test
    void noContentTypeIsNotJson() {
        assertThat(CanonicalJson.isJsonMediaType(null)).isFalse();
    }
}
