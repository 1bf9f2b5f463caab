import { nodeVectorIndex } from '../../src/wasm/nodeVectorKernel';
import { describeVectorIndex } from './vectorIndexSuite';
describeVectorIndex('WASM SIMD int8', async () => (await nodeVectorIndex()).factory, 'wasm-simd-int8');
