import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@journeyapps/wa-sqlite'] },
  build: { target: 'es2022', sourcemap: true },
  preview: { host: '127.0.0.1', port: 4173 },
  server: { host: '127.0.0.1' },
});
