// Prints the plain closing line CI reads: "jest: N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed\n`);
    // scripts/test.sh runs jest more than once and adds the counts up.
    if (process.env.ZGW_TEST_SUMMARY) require('node:fs').appendFileSync(process.env.ZGW_TEST_SUMMARY, `${results.numPassedTests} ${failed}\n`);
  }
}
module.exports = SummaryReporter;
