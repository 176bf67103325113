/**
 * The Redis store backend (Lettuce, asynchronous): standalone, sentinel or cluster. Claims and
 * every owner-checked write are Lua scripts, timed by the server's clock. The proxy's store
 * connects in the background when Redis is away at start.
 */
package dev.idemproxy.core.store.redis;
