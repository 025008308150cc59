/**
 * Reading probes from a Kubernetes manifest ({@link dev.vitals.kubesim.manifest.ManifestReader})
 * or from command-line flags ({@link dev.vitals.kubesim.manifest.ProbeFlags}).
 */
package dev.vitals.kubesim.manifest;
