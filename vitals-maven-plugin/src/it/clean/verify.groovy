// Lint passed and the built jar ran under the manifest's probes with a PASS verdict.
def log = new File(basedir, 'build.log').text
assert log.contains('vitals:lint src/main/k8s')
assert log.contains('1 input, 1 workload, 1 container: 0 errors, 0 warnings (fails on error)')
assert log.contains('verdict: PASS')
assert new File(basedir, 'target/vitals-lint.sarif').isFile()
def run = new groovy.json.JsonSlurper().parse(new File(basedir, 'target/vitals-simulate.json'))
assert run.restarts == 0
return true
