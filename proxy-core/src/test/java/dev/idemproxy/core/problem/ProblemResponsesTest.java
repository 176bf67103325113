package dev.idemproxy.core.problem;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemResponsesTest {
    @Test
    void aDetailQuotingAUrlShowsNeitherItsUserInfoNorASecretQueryValue() {
        String json = ProblemResponses.json(Problem.UPSTREAM_UNREACHABLE,
                "connect-failure: cannot reach http://bot:pw1@tickets.internal/r?api_key=k9&page=2", "c-1");

        assertThat(json).isEqualTo("{\"type\":\"urn:idemproxy:problem:upstream-unreachable\",\"title\":\""
                + Problem.UPSTREAM_UNREACHABLE.title() + "\",\"status\":502,\"detail\":\"connect-failure: cannot reach"
                + " http://***@tickets.internal/r?api_key=***&page=2\",\"callId\":\"c-1\"}");
    }
}
