package dev.idemproxy.core.route;

/**
 * A route's call lines (docs/operations.md: one line per finished call). This class is immutable.
 *
 * @param passThrough whether a call that is not protected (the route has no idempotency, or not
 *                    for its method) logs its line at INFO like every other call (true, the
 *                    default), or only at DEBUG (false): for a route that carries a high volume
 *                    of plain reads or streams, as an nginx {@code access_log off} would
 */
public record LogPolicy(boolean passThrough) {
    public static final LogPolicy DEFAULT = new LogPolicy(true);
}
