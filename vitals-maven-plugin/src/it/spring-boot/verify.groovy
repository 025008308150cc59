// The build failed on an error only the join shows (liveness reaching the datasource check), with the settings
// of the .vitals.yaml found above k8s/ reported.
def log = new File(basedir, 'build.log').text
assert log.contains('vitals:lint k8s --app-config src/main/resources/application.properties (settings: .vitals.yaml)')
assert log =~ /k8s\/deployment\.yaml:\d+: error /
assert log.contains('config .vitals.yaml: kubernetesVersion 1.34')
assert log =~ /vitals:lint: \d+ findings? at or above error \(failOn\)/
def sarif = new groovy.json.JsonSlurper().parse(new File(basedir, 'target/vitals-lint.sarif'))
assert sarif.runs[0].results.any { it.level == 'error' }
return true
