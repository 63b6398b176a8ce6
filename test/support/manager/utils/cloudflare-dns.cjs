'use strict';
// Manager's utils/cloudflare-dns.js, in our words: an A record on Cloudflare for each HTTP
// service whose external domain belongs to another site, pointing at this site's external
// IP. MANAGER_CLOUDFLARE_API points it at the tests' loopback recorder instead of
// Cloudflare's API. Never throws: a failure is a warning, as in Manager.
const CF_API_BASE = process.env.MANAGER_CLOUDFLARE_API || 'https://api.cloudflare.com/client/v4';

async function cfFetch(apiEmail, apiKey, path, options = {}) {
  const res = await fetch(`${CF_API_BASE}${path}`, {
    ...options,
    headers: { 'X-Auth-Email': apiEmail, Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
  });
  const body = await res.json();
  if (!body.success) throw new Error(`Cloudflare API error (${path}): ${(body.errors || []).map((e) => e.message).join('; ')}`);
  return body;
}

async function manageDnsRecords(services, site, action = 'create') {
  const warnings = [];
  for (const service of services) {
    const domain = service.ExternalDomain || service.externalDomain;
    if (!domain || domain.siteId === site.id) continue;
    if (!domain.cloudflareApiEmail || !domain.cloudflareApiKey) {
      warnings.push(`No Cloudflare credentials for domain ${domain.name} — skipping DNS ${action}`);
      continue;
    }
    if (!site.externalIp && action === 'create') {
      warnings.push(`Site "${site.name}" has no externalIp — cannot create DNS record for ${service.externalHostname}.${domain.name}`);
      continue;
    }
    const fqdn = `${service.externalHostname}.${domain.name}`;
    try {
      const zones = await cfFetch(
        domain.cloudflareApiEmail,
        domain.cloudflareApiKey,
        `/zones?name=${encodeURIComponent(domain.name)}&status=active`,
      );
      const zoneId = zones.result[0].id;
      if (action === 'create') {
        await cfFetch(domain.cloudflareApiEmail, domain.cloudflareApiKey, `/zones/${zoneId}/dns_records`, {
          method: 'POST',
          body: JSON.stringify({ type: 'A', name: fqdn, content: site.externalIp, ttl: 1, proxied: false }),
        });
        console.log(`[DNS] Created A record: ${fqdn} → ${site.externalIp}`);
      }
    } catch (err) {
      console.error(`[DNS] Failed to ${action} A record for ${fqdn}: ${err.message}`);
      warnings.push(`DNS record for ${fqdn} could not be ${action}d — contact your administrator.`);
    }
  }
  return warnings;
}

module.exports = { manageDnsRecords };
