// The Node.js flags each service runs with (npm start, the bench; the Dockerfile and docker-compose.yml say the same):
// - the API counts the memory of its Buffers (a list page's answer, the store's reply, the read trail's Kafka batches:
//   about 400 KB a list request) within the heap's growing limit (`--external-memory-accounted-in-global-limit`).
//   Without it V8 started a full collection about every 250 ms under list load, the heap at less than half its limit
//   (list page 1 at 100,000 zaken, 16 clients: 456 req/s, the API 2.37 ms of CPU a page; with it 621 to 669 req/s,
//   1.3 to 1.6 ms; creates unchanged; docs/benchmarks.md). With that, semi-spaces of 16 MB do as well as the 64 MB
//   the API had before, at about 90 MB less RSS;
// - an old space bound for the API and the transfer worker: without one V8 lets the heap grow far beyond what is live
//   under a steady allocation such as the registration import's (20,000 zaken: RSS +438 MB for the API, +531 for the
//   worker, 63.4 zaken/s; the API at 384 MB: +300 at 70.5 zaken/s; at 320 MB: +264 at 69.1, the worker +138;
//   docs/moving-in.md). What is live stays well within the bound;
// - the transfer worker's young generation at 32 MB: the import's pages and batches die young, and with V8's 16 MB
//   it spent a quarter of its CPU collecting (20,000 zaken: its CPU 0.44 to 0.49 of a core, 80.8 to 85.8 zaken/s; at
//   32 MB 0.31, 92.7 to 95.4; at 64 MB 0.43, 85.8).
const NODE_ARGS = {
  api: ['--external-memory-accounted-in-global-limit', '--max-semi-space-size=16', '--max-old-space-size=320'],
  transfer: ['--max-semi-space-size=32', '--max-old-space-size=256'],
};

module.exports = { NODE_ARGS };
