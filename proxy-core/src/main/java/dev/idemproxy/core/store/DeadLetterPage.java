package dev.idemproxy.core.store;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One page of the dead-letter listing. This class is immutable.
 *
 * @param entries    up to the asked limit, in (failedAt, id) order
 * @param nextCursor pass it to get the next page; null when this is the last page
 */
public record DeadLetterPage(List<DeadLetter> entries, String nextCursor) {

    public DeadLetterPage {
        entries = List.copyOf(requireNonNull(entries, "entries"));
    }
}
