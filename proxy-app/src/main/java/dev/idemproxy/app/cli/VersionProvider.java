package dev.idemproxy.app.cli;

import picocli.CommandLine.IVersionProvider;

/** Reads the version from the jar manifest; "dev" when run from classes. */
public final class VersionProvider implements IVersionProvider {
    public static String version() {
        return dev.idemproxy.app.admin.BuildVersion.get();
    }

    @Override
    public String[] getVersion() {
        return new String[] {"idemproxy " + version(), "Java " + System.getProperty("java.version")};
    }
}
