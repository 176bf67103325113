/**
 * The Redis store backend (Lettuce, asynchronous): standalone, sentinel or cluster. Claims and
 * every owner-checked write are Lua scripts, timed by the server's clock.
 */
package dev.idemproxy.core.store.redis;
