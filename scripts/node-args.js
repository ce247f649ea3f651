// The Node.js flags each service runs with (npm start, the bench; the Dockerfile and docker-compose.yml say the same):
// - the API allocates a page's worth of short-lived objects per list request: semi-spaces of 64 MB (V8's default is
//   16) let the young generation hold them, and it spends far less time collecting (list page 1 at 100,000 zaken 200
//   -> 250 req/s; docs/benchmarks.md);
// - an old space bound for the API and the transfer worker: without one V8 lets the heap grow far beyond what is live
//   under a steady allocation such as the registration import's (20,000 zaken: RSS +438 MB for the API, +531 for the
//   worker, 63.4 zaken/s; the API at 384 MB: +300 at 70.5 zaken/s; at 320 MB: +264 at 69.1, the worker +138;
//   docs/moving-in.md). What is live stays well within the bound;
// - the transfer worker's young generation at 32 MB: the import's pages and batches die young, and with V8's 16 MB
//   it spent a quarter of its CPU collecting (20,000 zaken: its CPU 0.44 to 0.49 of a core, 80.8 to 85.8 zaken/s; at
//   32 MB 0.31, 92.7 to 95.4; at 64 MB 0.43, 85.8).
const NODE_ARGS = {
  api: ['--max-semi-space-size=64', '--max-old-space-size=320'],
  transfer: ['--max-semi-space-size=32', '--max-old-space-size=256'],
};

module.exports = { NODE_ARGS };
