// Prints the plain closing line CI reads: "jest: N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
module.exports = SummaryReporter;
