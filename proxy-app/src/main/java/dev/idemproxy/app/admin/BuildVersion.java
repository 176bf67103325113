package dev.idemproxy.app.admin;

/** The build's version, from the jar manifest; "dev" when run from classes. Stateless. */
public final class BuildVersion {
    private BuildVersion() {}

    public static String get() {
        String v = BuildVersion.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
