/**
 * The module's one YAML reading ({@link dev.vitals.kubesim.yaml.YamlDocs}): manifests, app-config,
 * scenarios and fleet specs all go through it, so merge keys, anchors, the core schema and the
 * duplicate-key rule are the same for every command. No method accepts or returns null.
 */
package dev.vitals.kubesim.yaml;
