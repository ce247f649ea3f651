export * from './config';
export * from './logger';
export * from './release';
export * from './mongo';
export * from './events';
export * from './kafka';
export * from './consumer';
export * from './audit';
