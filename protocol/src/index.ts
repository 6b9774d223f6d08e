export * from './events';
export * from './messages';
export * from './guards';
export * from './state';
export * from './evolve';
export * from './rpc';
export * from './text';
export * from './names';
