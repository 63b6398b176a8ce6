import type { ReactNode } from 'react';
import { Link } from 'react-router';

const WIDTHS = { xl: 'max-w-xl', '2xl': 'max-w-2xl', '3xl': 'max-w-3xl' } as const;

/** A form page: heading, the fields, then the buttons. */
export function FormPageLayout(props: {
  icon: ReactNode;
  title: string;
  subtitle: string;
  backTo: { label: string; to: string };
  maxWidth?: keyof typeof WIDTHS;
  actions: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className={`mx-auto grid gap-4 p-6 ${WIDTHS[props.maxWidth ?? '2xl']}`}>
      <Link to={props.backTo.to} className="text-sm underline">
        {props.backTo.label}
      </Link>
      <header className="flex items-center gap-3">
        {props.icon}
        <div>
          <h1 className="text-xl font-semibold">{props.title}</h1>
          <p className="text-sm opacity-75">{props.subtitle}</p>
        </div>
      </header>
      <div className="grid gap-4">{props.children}</div>
      <footer className="flex justify-end gap-2">{props.actions}</footer>
    </section>
  );
}
