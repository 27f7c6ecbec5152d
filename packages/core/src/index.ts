export {};
export * from './config/index.js';
