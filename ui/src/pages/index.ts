// The areas of the admin, in sidebar order.
import type { ComponentType } from 'react';
import { ObjectsPage } from './objects/ObjectsPage';

export interface PageDef {
  path: string;
  label: string;
  component: ComponentType<{ route: string[] }>;
}

export const pages: PageDef[] = [{ path: 'objects', label: 'Objects', component: ObjectsPage }];
