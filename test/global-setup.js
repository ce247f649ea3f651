// Finds the engines for a test run: URLs from the environment when given; otherwise testcontainers where a
// Docker engine answers; otherwise the project's own engines script (the case on machines without Docker).
const { execFileSync } = require('node:child_process');
const path = require('node:path');

function dockerAvailable() {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

module.exports = async function globalSetup() {
  if (process.env.MONGODB_URL && process.env.KAFKA_BROKERS) return;
  if (dockerAvailable()) {
    const { GenericContainer, Wait } = require('testcontainers');
    const mongo = await new GenericContainer('mongo:7').withExposedPorts(27017).start();
    const kafka = await new GenericContainer('apache/kafka:3.9.1').withExposedPorts({ container: 9092, host: 19092 })
      .withEnvironment({ KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://localhost:9093' })
      .withWaitStrategy(Wait.forLogMessage('Kafka Server started')).start();
    process.env.MONGODB_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}`;
    process.env.KAFKA_BROKERS = '127.0.0.1:19092';
    globalThis.__ZGW_CONTAINERS__ = [mongo, kafka];
    return;
  }
  const script = path.join(__dirname, '..', 'scripts', 'engines.sh');
  // document content on S3 (INHOUD_STORE=s3) without an S3 of its own: the local S3 engine too
  const s3 = process.env.INHOUD_STORE === 's3' && !process.env.S3_ENDPOINT ? ['s3'] : [];
  execFileSync('bash', [script, 'start', 'mongo', 'kafka', 'temporal', ...s3], { stdio: 'inherit' });
  const env = execFileSync('bash', [script, 'env'], { encoding: 'utf8' });
  for (const m of env.matchAll(/export (\w+)=(\S+)/g)) process.env[m[1]] = m[2];
  process.env.ZGW_ENGINES_MANAGED = '1';
};
