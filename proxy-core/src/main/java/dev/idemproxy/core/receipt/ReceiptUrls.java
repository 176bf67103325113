package dev.idemproxy.core.receipt;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Fills a receipt URL template ({callId} {key} {bizId}, each URL-encoded). Pure; stateless. */
public final class ReceiptUrls {
    private ReceiptUrls() {}

    public static URI expand(String template, String callId, String key, String bizId) {
        String u = template.replace("{callId}", enc(callId)).replace("{key}", enc(key)).replace("{bizId}", enc(bizId));
        return URI.create(u);
    }

    private static String enc(String v) {
        return v == null ? "" : URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
