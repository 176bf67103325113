package dev.idemproxy.core.store.redis;

import dev.idemproxy.core.store.DeadLetterStore;
import dev.idemproxy.core.store.ForwardingDeadLetterStore;
import dev.idemproxy.core.store.ForwardingReceiptStore;
import dev.idemproxy.core.store.ForwardingRecordStore;
import dev.idemproxy.core.store.ForwardingTaskBudgetStore;
import dev.idemproxy.core.store.ReceiptStore;
import dev.idemproxy.core.store.RecordStore;
import dev.idemproxy.core.store.StoreUnavailableException;
import dev.idemproxy.core.store.Stores;
import dev.idemproxy.core.store.TaskBudgetStore;
import java.util.function.Supplier;

/**
 * The four stores {@link ConnectingRedisStore} hands out before Redis is connected: forwarding
 * decorators whose delegate is the connected backend's store once there is one (one volatile read
 * per operation), and until then {@link NotConnected}'s, which fail every operation at once and
 * are not available. Closing the record store closes the connector. Thread-safe.
 */
final class LateStores {
    private final ConnectingRedisStore connector;
    private final Stores notConnected;
    private final Stores stores = new Stores(new Records(), new Receipts(), new DeadLetters(), new TaskBudgets());
    private volatile Stores connected;

    /** @param why the failure of an operation made before the backend is connected */
    LateStores(ConnectingRedisStore connector, Supplier<StoreUnavailableException> why) {
        this.connector = connector;
        this.notConnected = NotConnected.stores(why);
    }

    /** From now on every operation goes to {@code backend}'s stores. */
    void connected(Stores backend) {
        connected = backend;
    }

    Stores stores() {
        return stores;
    }

    /** The connector behind {@code stores}, which {@link ConnectingRedisStore#stores()} handed out. */
    static ConnectingRedisStore connectorOf(Stores stores) {
        return ((Records) stores.records()).connector();
    }

    /** What the stores forward to now. */
    private Stores target() {
        Stores s = connected;
        return s != null ? s : notConnected;
    }

    /** The records; closing them closes the connector (and the backend, once connected). */
    private final class Records extends ForwardingRecordStore {
        @Override
        protected RecordStore delegate() {
            return target().records();
        }

        @Override
        public void close() {
            connector.close();
        }

        ConnectingRedisStore connector() {
            return connector;
        }
    }

    private final class Receipts extends ForwardingReceiptStore {
        @Override
        protected ReceiptStore delegate() {
            return target().receipts();
        }
    }

    private final class DeadLetters extends ForwardingDeadLetterStore {
        @Override
        protected DeadLetterStore delegate() {
            return target().deadLetters();
        }
    }

    private final class TaskBudgets extends ForwardingTaskBudgetStore {
        @Override
        protected TaskBudgetStore delegate() {
            return target().taskBudgets();
        }
    }
}
