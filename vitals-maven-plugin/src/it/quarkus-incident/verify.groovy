// The build failed with the default failOn (error) on the generated manifest's finding, read from
// target/kubernetes/, and wrote SARIF: liveness gives up before readiness on a pod its Service selects (L21, an error).
def log = new File(basedir, 'build.log').text
assert log =~ /\[ERROR\] target\/kubernetes\/kubernetes\.yml:\d+: error L21 liveness-before-readiness: Deployment\/orders container orders: /
assert log =~ /vitals:lint: 1 finding at or above error \(failOn\)/
// Quarkus' application.properties holds no Spring Boot setting: not joined
assert !log.contains('--app-config')
def sarif = new groovy.json.JsonSlurper().parse(new File(basedir, 'target/vitals-lint.sarif'))
assert sarif.version == '2.1.0'
assert sarif.runs[0].results.any { it.ruleId == 'L21' && it.level == 'error'
        && it.locations[0].physicalLocation.artifactLocation.uri == 'target/kubernetes/kubernetes.yml' }
return true
