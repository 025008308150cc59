// The build failed on the generated manifest's finding, read from target/kubernetes/, and wrote SARIF.
def log = new File(basedir, 'build.log').text
assert log =~ /target\/kubernetes\/kubernetes\.yml:\d+: (error|warning) /
assert log.contains('Deployment/orders container orders')
assert log =~ /vitals:lint: \d+ findings? at or above warning \(failOn\)/
// Quarkus' application.properties holds no Spring Boot setting: not joined
assert !log.contains('--app-config')
def sarif = new groovy.json.JsonSlurper().parse(new File(basedir, 'target/vitals-lint.sarif'))
assert sarif.version == '2.1.0'
assert sarif.runs[0].results.any { it.locations[0].physicalLocation.artifactLocation.uri == 'target/kubernetes/kubernetes.yml' }
return true
