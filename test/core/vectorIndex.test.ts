import { jsVectorIndex } from '../../src/core/capture/vectorIndex';
import { describeVectorIndex } from './vectorIndexSuite';
describeVectorIndex('JS float32', () => jsVectorIndex, 'js-float32');
