import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ToastProvider } from '@mieweb/ui';
import { ContainersListPage } from '@/pages/containers/ContainersListPage';
import { NodeFormPage } from '@/pages/nodes/NodeFormPage';
import './styles/index.css';

// Only the pages that hold the files the kit patches, so the build bundles them.
const router = createBrowserRouter([
  { path: '/sites/:siteId/containers', element: <ContainersListPage /> },
  { path: '/sites/:siteId/nodes/new', element: <NodeFormPage /> },
  { path: '/sites/:siteId/nodes/:id/edit', element: <NodeFormPage /> },
]);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no element with id "root"');

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
