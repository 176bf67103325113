package dev.idemproxy.app.admin;

import java.util.concurrent.CompletionStage;

/**
 * Answers one admin request. Called on the admin event loop: it must not block, so a store
 * lookup returns its own stage and completes it from the store's thread. The server writes the
 * response on the event loop once the stage completes; a stage that fails, or a thrown
 * exception, becomes a 500 problem.
 */
@FunctionalInterface
public interface AdminHandlerFn {
    CompletionStage<AdminResponse> handle(AdminRequest request);
}
