export * from '../dist/manager/kit/index.js';
